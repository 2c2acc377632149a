import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.ts';

export default defineConfig({
  test: {
    projects,
    // A run that collects nothing is a failure, never a green no-op.
    passWithNoTests: false,
    reporters: ['default', './tools/require-tests-reporter.ts'],
  },
});
