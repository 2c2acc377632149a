import { describe, expect, it } from 'vitest';
import { parseImageReference, repositoryName, sameRepository } from '../src/config/profile/image-reference.js';

// docs/profiles.md, "A profile file": a repository is named as a container
// runtime reads it (Docker's reference normalization). These are its edges:
// which first part is a registry host, which path component is well formed,
// and what a one-part name means.

describe('repositoryName', () => {
  it('takes a first part as a registry host only when it has a "." or a ":", or is localhost, and more parts follow', () => {
    expect(repositoryName('registry.example.com/shop/web')).toEqual({
      host: 'registry.example.com',
      path: 'shop/web',
    });
    expect(repositoryName('registry:5000/shop/web')).toEqual({ host: 'registry:5000', path: 'shop/web' });
    expect(repositoryName('localhost:5000/web')).toEqual({ host: 'localhost:5000', path: 'web' });
    expect(repositoryName('localhost/web')).toEqual({ host: 'localhost', path: 'web' });
    // A host may be written in capitals; a path may not.
    expect(repositoryName('Registry.Example.com/shop/web')).toEqual({
      host: 'Registry.Example.com',
      path: 'shop/web',
    });
    // Without a "." or ":" the first part is a Docker Hub namespace.
    expect(repositoryName('shop/web')).toEqual({ host: 'docker.io', path: 'shop/web' });
    // One part alone is a name on Docker Hub, never a host.
    expect(repositoryName('localhost')).toEqual({ host: 'docker.io', path: 'library/localhost' });
    expect(repositoryName('registry.example.com')).toEqual({ host: 'docker.io', path: 'library/registry.example.com' });
  });

  it('refuses a host written with anything but letters, digits, ".", ":" and "-"', () => {
    expect(repositoryName('my_registry.example.com/shop/web')).toBeUndefined();
    expect(repositoryName('registry.example.com_2/shop/web')).toBeUndefined();
    expect(repositoryName('registry:5000_/shop/web')).toBeUndefined();
    expect(repositoryName('my-registry.example.com/shop/web')).toEqual({
      host: 'my-registry.example.com',
      path: 'shop/web',
    });
  });

  it('takes path components of lowercase letters and digits, joined by ".", "_", "__" or a run of "-"', () => {
    for (const path of ['shop/my.web', 'shop/my_web', 'shop/my__web', 'shop/my-web', 'shop/my---web', 'a/b/c/d']) {
      expect(repositoryName(path)).toEqual({ host: 'docker.io', path });
    }
    for (const path of ['shop/my___web', 'shop/-web', 'shop/web-', 'shop/.web', 'shop//web', 'shop/', '', 'shop/Web']) {
      expect(repositoryName(path)).toBeUndefined();
    }
  });

  it('names an official image "library/…" on Docker Hub however it is spelled, and on no other registry', () => {
    for (const name of ['nginx', 'docker.io/nginx', 'index.docker.io/nginx']) {
      expect(repositoryName(name)).toEqual({ host: 'docker.io', path: 'library/nginx' });
    }
    expect(repositoryName('ghcr.io/nginx')).toEqual({ host: 'ghcr.io', path: 'nginx' });
    expect(repositoryName('docker.io/shop/web/api')).toEqual({ host: 'docker.io', path: 'shop/web/api' });
  });
});

describe('sameRepository', () => {
  it('is one repository only when both the host and the path are the same', () => {
    const web = { host: 'docker.io', path: 'shop/web' };
    expect(sameRepository(web, { host: 'docker.io', path: 'shop/web' })).toBe(true);
    expect(sameRepository(web, { host: 'docker.io', path: 'shop/log' })).toBe(false);
    expect(sameRepository(web, { host: 'ghcr.io', path: 'shop/web' })).toBe(false);
  });
});

describe('parseImageReference', () => {
  it('says a tag or a digest only when the reference names one', () => {
    expect(parseImageReference('shop/web')).toStrictEqual({ host: 'docker.io', path: 'shop/web' });
    expect(parseImageReference('registry:5000/shop/web')).toStrictEqual({ host: 'registry:5000', path: 'shop/web' });
    expect(parseImageReference('registry:5000/shop/web:stg@sha256:ab')).toStrictEqual({
      host: 'registry:5000',
      path: 'shop/web',
      tag: 'stg',
      digest: 'sha256:ab',
    });
  });

  it('keeps a reference that names no valid repository as its path, on no host', () => {
    expect(parseImageReference('Shop/Web:stg')).toStrictEqual({ host: '', path: 'Shop/Web', tag: 'stg' });
  });
});
