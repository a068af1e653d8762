// Runs @changesets/ghcommit's commitChanges unchanged, with an Octokit
// built as its README says (core + rest endpoint methods + paginate), against
// the API at config.baseUrl. The config comes as JSON on stdin (so the token
// is in neither argv nor the environment); the result is one JSON line on
// stdout: {"ok":true,"result":...} or {"ok":false,"error":{...}}.
import { commitChanges } from "@changesets/ghcommit";
import { Octokit } from "@octokit/core";
import { paginateRest } from "@octokit/plugin-paginate-rest";
import { restEndpointMethods } from "@octokit/plugin-rest-endpoint-methods";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const cfg = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const MyOctokit = Octokit.plugin(restEndpointMethods, paginateRest);
const octokit = new MyOctokit({ auth: cfg.token, baseUrl: cfg.baseUrl, userAgent: "ghcommitter-peer-test" });
try {
  const result = await commitChanges({
    octokit,
    owner: cfg.owner,
    repo: cfg.repo,
    branch: cfg.branch,
    base: cfg.base,
    force: cfg.force ?? false,
    message: cfg.message,
    fileChanges: { additions: cfg.additions ?? [], deletions: cfg.deletions ?? [] },
  });
  process.stdout.write(JSON.stringify({ ok: true, result }) + "\n");
} catch (e) {
  process.stdout.write(JSON.stringify({ ok: false, error: { message: String(e?.message ?? e), status: e?.status ?? null, errors: e?.errors ?? null } }) + "\n");
}
