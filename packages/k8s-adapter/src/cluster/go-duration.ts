// Durations the way kubectl and Go print them (`1m30s`, `10m`, `2h0m5s` → `2h5s`),
// for progress lines an operator compares with ROLLOUT_TIMEOUT as written.

export const goDuration = (ms: number): string => {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  const total = Math.round(ms / 1_000);
  const h = Math.floor(total / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 || total === 0 ? `${s}s` : ''}`;
};
