import type { Reporter, TestModule } from 'vitest/node';

// Vitest fails a run with no test files, but not a project whose files hold no
// test, nor a filter that matches nothing in a project. Every project must run
// at least one test, or the run fails. In CI (IMAGE_REFRESH_CI=1, set by
// .ci/run) a skipped test fails the run too: the kubectl and registry tests
// skip where their binary is missing, and CI must run them.
export default class RequireTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = new Map<string, number>();
    const skipped: string[] = [];
    for (const module of testModules) {
      const name = module.project.name;
      let tests = 0;
      for (const test of module.children.allTests()) {
        tests += 1;
        if (test.result().state === 'skipped') skipped.push(`${name} ${module.moduleId}: ${test.fullName}`);
      }
      counts.set(name, (counts.get(name) ?? 0) + tests);
    }
    if (process.env.IMAGE_REFRESH_CI === '1' && skipped.length > 0) {
      console.error(`\nrequire-tests: CI skipped ${skipped.length} test(s) — failing:\n  ${skipped.join('\n  ')}`);
      process.exitCode = 1;
    }
    const empty = [...counts].filter(([, n]) => n === 0).map(([name]) => name);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total === 0 || empty.length > 0) {
      console.error(
        `\nrequire-tests: ${total === 0 ? 'the run collected no tests' : `project(s) ran no tests: ${empty.join(', ')}`} — failing.`,
      );
      process.exitCode = 1;
    }
  }
}
