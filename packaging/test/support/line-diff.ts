// A unified diff of two texts, line by line, for a failure message a reviewer
// can read: what the public API gained (+) and lost (-), with context. The
// reports are a few hundred lines, so a plain LCS table is fast enough.

const CONTEXT = 3;

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string; readonly a: number; readonly b: number };

const operations = (a: readonly string[], b: readonly string[]): Op[] => {
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    for (let j = b.length - 1; j >= 0; j--) {
      row[j] = a[i] === b[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] as string, a: i++, b: j++ });
    } else if (j < b.length && (i === a.length || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      ops.push({ kind: '+', line: b[j] as string, a: i, b: j++ });
    } else {
      ops.push({ kind: '-', line: a[i] as string, a: i++, b: j });
    }
  }
  return ops;
};

/** `--- old` / `+++ new` and `@@` hunks; empty when the texts are equal. */
export const lineDiff = (oldText: string, newText: string, names = { old: 'checked in', new: 'generated' }): string => {
  const ops = operations(oldText.split('\n'), newText.split('\n'));
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  if (changed.length === 0) return '';
  const out = [`--- ${names.old}`, `+++ ${names.new}`];
  let start = 0;
  while (start < changed.length) {
    // A hunk: changes closer than twice the context share one.
    let end = start;
    while (end + 1 < changed.length && (changed[end + 1] as number) - (changed[end] as number) <= 2 * CONTEXT) end++;
    const from = Math.max(0, (changed[start] as number) - CONTEXT);
    const to = Math.min(ops.length - 1, (changed[end] as number) + CONTEXT);
    const first = ops[from] as Op;
    out.push(`@@ -${first.a + 1} +${first.b + 1} @@`);
    for (const op of ops.slice(from, to + 1)) out.push(`${op.kind}${op.line}`);
    start = end + 1;
  }
  return out.join('\n');
};
