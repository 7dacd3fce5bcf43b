// Continue's CLI (cn, pinned in package.json) finds mcptray's tools after
// `mcptray config continue --install --yes`, with no model and no account.
//
// cn 1.5.47 has no command that lists MCP tools, and its headless mode
// (-p) stops with "No models were found." before asking anything. So the
// person's config.yaml names a model served by a stub on 127.0.0.1 that
// speaks OpenAI's chat completions: cn connects to every MCP server of its
// config, then sends the model its tools, which is where this test reads
// them. The stub answers "ok"; nothing leaves this computer.
//
// scripts/continue-cli.sh runs it with a private HOME and a running
// `mcptray serve` (the catalog CATALOG); environment: MCPTRAY, SHIM (its
// mcptray-stdio), CN, HOME, CATALOG.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";

const { MCPTRAY, SHIM, CN, HOME, CATALOG } = process.env;
for (const [k, v] of Object.entries({ MCPTRAY, SHIM, CN, HOME, CATALOG })) {
  if (!v) throw new Error(`${k} is not set`);
}

function fail(msg) {
  console.error(`continue-cli: FAILED: ${msg}`);
  process.exit(1);
}

// run starts a program, its output kept, under a deadline.
async function run(cmd, args, { env = process.env, cwd, timeoutMs = 60_000 } = {}) {
  const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code, signal] = await once(child, "close");
  clearTimeout(timer);
  return { code, signal, out };
}

// The model: one streamed answer per request, each request's tools kept.
const requests = [];
const model = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    try {
      requests.push({ url: req.url, body: JSON.parse(body) });
    } catch {
      requests.push({ url: req.url, body: null });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta, finish) => ({
      id: "stub", object: "chat.completion.chunk", created: 1, model: "stub",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    res.write(`data: ${JSON.stringify(chunk({ role: "assistant", content: "ok" }, null))}\n\n`);
    res.write(`data: ${JSON.stringify(chunk({}, "stop"))}\n\n`);
    res.end("data: [DONE]\n\n");
  });
});
model.listen(0, "127.0.0.1");
await once(model, "listening");
const apiBase = `http://127.0.0.1:${model.address().port}/v1/`;

// What a person who uses cn has: the config.yaml cn's first start wrote
// (here with the stub as its model), commented and with rules of theirs.
const dir = path.join(HOME, ".continue");
mkdirSync(dir, { recursive: true });
const mine = `# my Continue setup
name: Local Config
version: 1.0.0
schema: v1
models:
  - name: stub
    provider: openai
    model: stub
    apiBase: ${apiBase} # a stand-in for a real model
    apiKey: test
    roles: [chat]

rules:
  - Answer in one word.
`;
const configYaml = path.join(dir, "config.yaml");
writeFileSync(configYaml, mine);

const env = {
  ...process.env,
  HOME,
  // No update check and no telemetry: nothing reaches the network.
  CONTINUE_CLI_AUTO_UPDATED: "1",
  CONTINUE_CLI_ENABLE_TELEMETRY: "0",
  CONTINUE_METRICS_ENABLED: "0",
};
delete env.CONTINUE_GLOBAL_DIR;

let r = await run(MCPTRAY, ["config", "continue", "--install", "--yes", "--shim", SHIM], { env });
if (r.code !== 0) fail(`mcptray config continue --install --yes exited ${r.code}:\n${r.out}`);
const merged = readFileSync(configYaml, "utf8");
if (!merged.startsWith(mine)) fail(`config.yaml lost what was written in it:\n${merged}`);
console.log(`continue-cli: config.yaml after the install:\n${merged.replace(/^/gm, "  | ")}`);

const t0 = Date.now();
// From the empty home folder: cn indexes the files of the folder it runs in.
r = await run(CN, ["-p", "Which tools do you have?"], { env, cwd: HOME, timeoutMs: 90_000 });
const seconds = ((Date.now() - t0) / 1000).toFixed(1);
model.close();
if (r.code !== 0) fail(`cn -p exited ${r.code ?? r.signal} after ${seconds} s:\n${r.out}`);
const sent = requests.find((q) => q.body && Array.isArray(q.body.tools));
if (!sent) fail(`cn sent the model no request with tools (${requests.length} requests); cn said:\n${r.out}`);
const names = sent.body.tools.map((t) => t.function?.name);
const want = JSON.parse(readFileSync(CATALOG, "utf8")).tools.map((t) => t.name);
const missing = want.filter((n) => !names.includes(n));
if (missing.length > 0) {
  fail(`cn did not get mcptray's tools ${missing.join(", ")}; it offered the model: ${names.join(", ")}\ncn said:\n${r.out}`);
}
console.log(`continue-cli: cn ${seconds} s: mcptray's ${want.length} tools among the ${names.length} it offers the model: ${want.join(", ")}`);

// --check runs the entry of each file Continue reads, as Continue would.
r = await run(MCPTRAY, ["config", "continue", "--check"], { env });
const oks = r.out.split("\n").filter((l) => l.startsWith("OK: "));
if (r.code !== 0 || oks.length !== 2) fail(`mcptray config continue --check (exit ${r.code}) did not pass for both files:\n${r.out}`);
console.log(`continue-cli: ${oks.join("\ncontinue-cli: ")}`);
