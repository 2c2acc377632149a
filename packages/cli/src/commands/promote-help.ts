import { FLEET_PROMOTION_MEDIA_TYPE } from '@image-refresh/core';

// `image-refresh help promote`, apart from the command: main.ts loads the
// command itself (the Prometheus client, the verdict) only when it runs.

export const PROMOTE_HELP = `Usage: image-refresh promote --prometheus URL --image NAME --digest sha256:… --ring N --for DURATION
         [--bearer-token-file FILE | --basic-auth-file FILE] [--min-edges K] [--json] [--out FILE] [--from FILE] [--halt-on-rollback]
         [--expires DURATION|TIME] [--timeout DURATION]

Asks Prometheus whether every edge of rings < N that pushed within the last
hour runs NAME at the digest, recorded for at least --for up to its last
push, with no rollback, quarantine, flap lockout, failed tick or unsettled
gate (skipped ticks) since; prints the verdict and the evidence per edge.
Run by CI or an operator, not on the edges.

  --prometheus        Prometheus's URL (its HTTP API: /api/v1/query); no
                      user:password@ in it: credentials never ride in argv
  --bearer-token-file a file holding a token: sent as Authorization: Bearer
  --basic-auth-file   a file holding user:password on one line: Basic auth
  --image             the image's name as the edges' profile names it (web)
  --digest            sha256:<64 hex>: the build to promote
  --ring              the ring to open it to (1..100): rings < N are the evidence
  --for               how long each edge must have run it (2h, 90m, 1d)
  --min-edges         fewest edges counted to say yes (default 1)
  --json              one JSON object instead of the table
  --out               when it promotes, write the promotion document here
                      (with --halt-on-rollback and a rollback: the fleet halt)
  --from              the published promotion document to start from: its
                      other entries are kept, the expired ones dropped
  --halt-on-rollback  a digest an edge rolled back: write the fleet halt of it
  --expires           the entry's expiry: a duration or RFC 3339 time, at most
                      30 days (default 7d; a halt's 24h)
  --timeout           per Prometheus query (default 10s)

Exit codes: 0 promote, 1 the evidence says no (or not yet), 2 a usage error,
3 no evidence to judge by (Prometheus unreachable or its answer malformed,
fewer than --min-edges edges counted).
Then publish the file as halt render's is (oras push with the artifact type
${FLEET_PROMOTION_MEDIA_TYPE}, cosign sign).
`;
