#!/usr/bin/env bash
# The whole core's mutation run (stryker.config.mjs's `mutate`) in four
# disjoint parts, each its own Stryker run and report under
# reports/mutation/parts/: a part that ends is kept even if a later one is
# stopped, and tools/mutation-score.mjs sums the four to the whole-core score
# (packages/core/test/spec/README.md, "Score, latest"). The longest part, the
# machine, runs last.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p reports/mutation/parts
part() {
  local name=$1 globs=$2 started
  started=$(date +%s)
  npx -y pnpm@10.34.9 exec stryker run --mutate "$globs" > "reports/mutation/parts/$name.log" 2>&1
  cp reports/mutation/mutation.json "reports/mutation/parts/$name.json"
  echo "$name: $(( $(date +%s) - started )) s"
}
part config 'packages/core/src/config/**/*.ts'
part rest 'packages/core/src/shell/**/*.ts,packages/core/src/ports/**/*.ts,packages/core/src/*.ts,!packages/core/src/index.ts'
part domain 'packages/core/src/domain/**/*.ts'
part machine 'packages/core/src/machine/**/*.ts,!packages/core/src/machine/diagram.ts'
node tools/mutation-score.mjs reports/mutation/parts/{machine,domain,config,rest}.json
