// gen-github-api.mjs regenerates testdata/github-api/{operations,schemas,index.json}
// from GitHub's official OpenAPI description as published on npm
// (@octokit/openapi, generated/api.github.com.json).
//
//   node scripts/gen-github-api.mjs <api.github.com.json> <out dir> <package version> <tarball sha1>
//
// scripts/gen-github-api.sh fetches the package with `npm pack` and runs
// this; `make api-schemas` runs that. Each operation the fake serves becomes
// operations/<tag>-<name>.json: the operation with every $ref inlined and its
// schemas converted from OpenAPI 3.0 to JSON Schema 2020-12 (nullable ->
// type union with "null", example -> examples[], oneOf -> anyOf marked
// x-openapi-oneOf, since GitHub's oneOf branches overlap). Hand-written notes
// come from scripts/github-api-notes.json.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";

const [, , specPath, outDir, version, tarSha1] = process.argv;
if (!specPath || !outDir) {
  console.error("usage: gen-github-api.mjs SPEC OUTDIR VERSION SHA1");
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const raw = fs.readFileSync(specPath);
const spec = JSON.parse(raw);
const specSha256 = crypto.createHash("sha256").update(raw).digest("hex");

// The operations the fake serves (and the few others helpers add).
const OPERATIONS = [
  "git/get-ref", "git/list-matching-refs", "git/create-ref", "git/update-ref", "git/delete-ref",
  "git/create-blob", "git/get-blob", "git/create-tree", "git/get-tree", "git/create-commit",
  "git/get-commit", "repos/get-commit", "repos/get-branch", "repos/rename-branch",
  "repos/compare-commits-with-basehead", "repos/get-content", "repos/create-or-update-file-contents",
  "repos/delete-file", "repos/get", "repos/delete", "repos/create-for-authenticated-user",
  "repos/create-in-org", "pulls/create", "pulls/list", "pulls/get", "issues/create-label",
  "rate-limit/get", "apps/get-repo-installation", "apps/create-installation-access-token",
  "git/create-tag", "git/get-tag", "repos/get-branch-rules", "repos/get-branch-protection",
  "pulls/update", "issues/add-labels", "issues/set-labels", "issues/remove-label",
  "pulls/request-reviewers", "pulls/remove-requested-reviewers", "issues/add-assignees",
  "issues/remove-assignees", "pulls/merge", "pulls/check-if-merged", "repos/list-commits",
  "repos/create-commit-status", "repos/list-commit-statuses-for-ref", "repos/get-combined-status-for-ref",
  "checks/create", "checks/update", "checks/get", "checks/list-for-ref",
];
// Named components also written to schemas/.
const SCHEMAS = [
  "basic-error", "validation-error", "validation-error-simple", "repository-rule-violation-error",
  "git-ref", "short-blob", "blob", "git-tree", "git-commit", "file-commit", "content-file",
  "content-tree", "commit", "branch-short", "branch-with-protection", "verification",
  "rate-limit-overview", "full-repository", "pull-request", "installation-token", "installation",
  "label", "commit-comparison", "git-tag", "repository-rule-detailed", "protected-branch",
  "issue", "pull-request-merge-result",
];

const source = {
  upstream: `github/rest-api-description, descriptions/api.github.com/api.github.com.json (OpenAPI ${spec.openapi}, info.version ${spec.info.version})`,
  extractedFrom: `npm package @octokit/openapi@${version} (tarball sha1 ${tarSha1}), file generated/api.github.com.json (sha256 ${specSha256}); 'x-octokit' stripped here`,
  generatedBy: "scripts/gen-github-api.sh (make api-schemas)",
  conversion: "OpenAPI 3.0 schema -> JSON Schema 2020-12: $ref inlined ('$comment' names the component), nullable -> type union with 'null', example -> examples[], oneOf -> anyOf (marked x-openapi-oneOf: true)",
};

function lookup(ref) {
  const parts = ref.replace(/^#\//, "").split("/");
  let cur = spec;
  for (const p of parts) cur = cur[p.replace(/~1/g, "/").replace(/~0/g, "~")];
  if (cur === undefined) throw new Error("unresolved " + ref);
  return cur;
}

function stripOctokit(v) {
  if (Array.isArray(v)) return v.map(stripOctokit);
  if (v && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) if (k !== "x-octokit") o[k] = stripOctokit(x);
    return o;
  }
  return v;
}

// convert turns an OpenAPI 3.0 schema into JSON Schema 2020-12.
function convert(s, stack = []) {
  if (Array.isArray(s)) return s.map((x) => convert(x, stack));
  if (!s || typeof s !== "object") return s;
  if (s.$ref) {
    if (stack.includes(s.$ref)) return { $comment: "recursive " + s.$ref };
    const out = convert(lookup(s.$ref), [...stack, s.$ref]);
    return { ...out, $comment: "resolved from " + s.$ref };
  }
  const o = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "x-octokit" || k === "nullable" || k === "example") continue;
    if (k === "properties" || k === "patternProperties") {
      o[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, convert(x, stack)]));
    } else if (k === "oneOf") {
      o.anyOf = convert(v, stack);
      o["x-openapi-oneOf"] = true;
    } else if (["items", "additionalProperties", "not", "allOf", "anyOf"].includes(k)) {
      o[k] = typeof v === "object" ? convert(v, stack) : v;
    } else {
      o[k] = v;
    }
  }
  if (s.example !== undefined) o.examples = [s.example];
  if (s.nullable) {
    if (o.type !== undefined) {
      o.type = Array.isArray(o.type) ? [...new Set([...o.type, "null"])] : [o.type, "null"];
      if (o.enum && !o.enum.includes(null)) o.enum = [...o.enum, null];
    } else {
      return { anyOf: [o, { type: "null" }] };
    }
  }
  return o;
}

function deref(v) {
  return v && v.$ref ? { ...deref(lookup(v.$ref)), $comment: "resolved from " + v.$ref } : v;
}

function exampleValues(examples) {
  if (!examples) return undefined;
  const out = {}, summaries = {};
  for (const [name, ex] of Object.entries(examples)) {
    const e = deref(ex);
    out[name] = e.value;
    if (e.summary) summaries[name] = e.summary;
  }
  return { values: out, summaries };
}

function response(r) {
  const resp = deref(r);
  const out = { description: resp.description };
  if (resp.$comment) out.$comment = resp.$comment;
  if (resp.headers) {
    out.headers = Object.fromEntries(Object.entries(resp.headers).map(([n, h]) => {
      const d = deref(h);
      const x = {};
      if (d.example !== undefined) x.example = d.example;
      if (d.schema) x.schema = convert(d.schema);
      return [n, x];
    }));
  }
  const content = resp.content || {};
  const types = Object.keys(content);
  const main = types.includes("application/json") ? "application/json" : types[0];
  if (main) {
    out.contentType = main;
    if (content[main].schema) out.schema = convert(content[main].schema);
    const ex = exampleValues(content[main].examples);
    if (ex) {
      out.examples = ex.values;
      if (Object.keys(ex.summaries).length) out.exampleSummaries = ex.summaries;
    }
    const other = types.filter((t) => t !== main);
    if (other.length) {
      out.otherContent = Object.fromEntries(other.map((t) => [t, { schema: convert(content[t].schema) }]));
    }
  }
  return out;
}

function findOperation(id) {
  for (const [p, item] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (op && op.operationId === id) return { method: m.toUpperCase(), path: p, op };
    }
  }
  throw new Error("operation not in the description: " + id);
}

const notes = JSON.parse(fs.readFileSync(path.join(here, "github-api-notes.json"), "utf8"));
const write = (rel, v) => fs.writeFileSync(path.join(outDir, rel), JSON.stringify(v, null, 2) + "\n");
fs.mkdirSync(path.join(outDir, "operations"), { recursive: true });
fs.mkdirSync(path.join(outDir, "schemas"), { recursive: true });

const index = { source, operations: [], schemas: [] };
for (const id of OPERATIONS) {
  const { method, path: p, op } = findOperation(id);
  const file = "operations/" + id.replace("/", "-") + ".json";
  const responses = Object.fromEntries(Object.entries(op.responses).map(([st, r]) => [st, response(r)]));
  const body = op.requestBody ? deref(op.requestBody) : undefined;
  const json = body && body.content && body.content["application/json"];
  const req = json ? exampleValues(json.examples) : undefined;
  const out = {
    operationId: id, method, path: p, source,
    ...(notes[id] ? { notes: notes[id] } : {}),
    summary: op.summary, description: op.description,
    docsUrl: op.externalDocs && op.externalDocs.url, "x-github": op["x-github"],
    parameters: (op.parameters || []).map((x) => {
      const d = deref(x);
      return { ...d, ...(d.schema ? { schema: convert(d.schema) } : {}) };
    }),
    requestSchema: json && json.schema ? convert(json.schema) : null,
    ...(req ? { requestExamples: req.values } : {}),
    responses,
    openapiSource: stripOctokit(op),
  };
  write(file, out);
  const ok = Object.keys(responses).find((s) => s.startsWith("2"));
  index.operations.push({
    operationId: id, method, path: p, file, docsUrl: out.docsUrl, statuses: Object.keys(responses),
    successSchema: ok && responses[ok].schema ? responses[ok].schema.title || null : null,
    ...(notes[id] ? { notes: notes[id] } : {}),
  });
}
for (const name of SCHEMAS) {
  const ref = "#/components/schemas/" + name;
  write("schemas/" + name + ".json", {
    $schema: "https://json-schema.org/draft/2020-12/schema", ...convert({ $ref: ref }),
  });
  index.schemas.push("schemas/" + name + ".json");
}
const common = {};
for (const [n, r] of Object.entries(spec.components.responses)) common[n] = response({ $ref: "#/components/responses/" + n });
write("schemas/common-error-responses.json", common);
index.schemas.push("schemas/common-error-responses.json");
write("index.json", index);
console.error(`wrote ${OPERATIONS.length} operations and ${SCHEMAS.length} schemas to ${outDir}`);
