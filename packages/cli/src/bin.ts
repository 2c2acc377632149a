import { main } from './main.js';

// The process boundary: argv in, exit code out. Everything else is testable
// through main().
const result = await main(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = result.exitCode;
