import { describe, expect, it } from 'vitest';
import { hasUserinfo, withoutUserinfo } from '../src/config/url-userinfo.js';

// A registry URL's `user:password@` never reaches a line, an Event or an
// error message (docs/behaviour.md §2, the registry's credentials): every
// place that shows such a URL asks these two.

describe('a URL that carries credentials', () => {
  it.each([
    ['https://robot:s3cret@registry.example/v2/', true],
    ['http://robot@127.0.0.1:5000', true],
    ['HTTPS://ROBOT:S3CRET@REGISTRY.EXAMPLE', true],
    ['https://registry.example/v2/a@b', false],
    ['https://registry.example?user=a@b', false],
    ['https://registry.example#a@b', false],
    ['xhttps://robot:s3cret@registry.example', false],
    ['ftp://robot:s3cret@registry.example', false],
    ['https://registry.example', false],
    ['https://robot:p@ss@registry.example/v2/', true],
  ])('%s names a user: %s', (url, named) => expect(hasUserinfo(url)).toBe(named));

  it('is shown with the user and password replaced, the rest kept', () => {
    expect(withoutUserinfo('https://robot:s3cret@registry.example:5000/v2/')).toBe(
      'https://…@registry.example:5000/v2/',
    );
    expect(withoutUserinfo('HTTP://robot@127.0.0.1:5000')).toBe('HTTP://…@127.0.0.1:5000');
    expect(withoutUserinfo('https://registry.example/v2/a@b')).toBe('https://registry.example/v2/a@b');
    // A password with a raw "@": all of it goes, as a URL parser reads it (host registry.example).
    expect(withoutUserinfo('https://robot:p@ss@registry.example/v2/')).toBe('https://…@registry.example/v2/');
    expect(new URL('https://robot:p@ss@registry.example/v2/').host).toBe('registry.example');
  });
});
