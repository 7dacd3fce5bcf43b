// The official TypeScript MCP client (@modelcontextprotocol/client v2) launches
// mcptray-stdio as a stdio server, against a running `mcptray serve`, once in
// the 2026-07-28 era and once in the 2025-11-25 era. Run by scripts/tsclient.sh:
//
//   node shim.test.mjs   with SHIM, MCPTRAY, MCPTRAY_DB and XDG_CONFIG_HOME set
//
// Prints one line per check and exits non-zero on the first failure.
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const { SHIM, MCPTRAY, MCPTRAY_DB } = process.env;
if (!SHIM || !MCPTRAY || !MCPTRAY_DB || !process.env.XDG_CONFIG_HOME) {
  console.error('set SHIM, MCPTRAY, MCPTRAY_DB and XDG_CONFIG_HOME');
  process.exit(2);
}

const timeout = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref());

function check(cond, what, detail) {
  if (!cond) throw new Error(`${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
}

// Fill a form with a plausible value for each field.
function fill(schema) {
  const out = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) {
    if (p.enum) out[k] = p.enum[0];
    else if (p.type === 'boolean') out[k] = true;
    else if (p.type === 'number' || p.type === 'integer') out[k] = 1;
    else if (k === 'email' || p.format === 'email') out[k] = 'ann@example.com';
    else out[k] = 'Ann';
  }
  return out;
}

async function run(era) {
  const modern = era === '2026-07-28';
  const client = new Client(
    { name: 'mcptray-tsclient-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: modern ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  let asked = 0;
  client.setRequestHandler('elicitation/create', async req => {
    asked++;
    return { action: 'accept', content: fill(req.params.requestedSchema) };
  });
  const changed = [];
  client.setNotificationHandler('notifications/tools/list_changed', n => changed.push(n));

  const transport = new StdioClientTransport({ command: SHIM, args: [], env: { ...process.env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', d => (stderr += d));
  const ok = what => console.log(`ok   ${era}: ${what}`);
  try {
    await Promise.race([client.connect(transport), timeout(20000, 'connect')]);
    check(client.getServerVersion()?.name === 'mcptray', 'server name', client.getServerVersion());
    ok(`connected (${modern ? 'server/discover' : 'initialize'})`);

    const { tools } = await client.listTools();
    check(tools.some(t => t.name === 'test_simple_text'), 'tools/list has test_simple_text', tools.map(t => t.name));
    ok(`tools/list: ${tools.length} tools`);

    const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
    check(simple.content?.[0]?.text?.includes('simple text'), 'test_simple_text answer', simple);
    ok('tools/call test_simple_text');

    const input = modern
      ? await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })
      : await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    check(asked >= 1 && !input.isError, 'input step answered', { asked, input });
    ok(`input step (${modern ? 'input_required round' : 'elicitation/create over the session'}): ${JSON.stringify(input.content?.[0]?.text ?? '').slice(0, 60)}`);

    const progress = [];
    const withProgress = await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      { onprogress: p => progress.push(p.progress) },
    );
    check(!withProgress.isError && progress.length >= 2, 'progress notifications', { progress, withProgress });
    ok(`progress: ${progress.join(', ')}`);

    let sub;
    if (modern) {
      sub = await Promise.race([client.listen({ toolsListChanged: true }), timeout(10000, 'subscriptions/listen ack')]);
      check(sub.honoredFilter?.toolsListChanged, 'listen honored toolsListChanged', sub.honoredFilter);
      ok('subscriptions/listen acknowledged');
    } else {
      // 2025: list_changed comes on the session's GET stream; give the shim a moment to open it.
      await new Promise(r => setTimeout(r, 300));
    }
    execFileSync(MCPTRAY, ['tool', 'toggle', '--db', MCPTRAY_DB, 'test_transient_tool'], { stdio: 'ignore' });
    const deadline = Date.now() + 10000;
    while (changed.length === 0 && Date.now() < deadline) await new Promise(r => setTimeout(r, 25));
    check(changed.length > 0, 'notifications/tools/list_changed after an edit');
    ok(`list_changed after \`mcptray tool toggle\` (${modern ? 'listen stream' : 'GET stream'})`);
    if (sub) await sub.close();
  } catch (e) {
    console.log(`FAIL ${era}: ${e?.stack ?? e}`);
    if (stderr) console.log(`shim stderr:\n${stderr}`);
    throw e;
  } finally {
    await client.close().catch(() => {});
  }
}

let failed = false;
for (const era of ['2026-07-28', '2025-11-25']) {
  try {
    await run(era);
  } catch {
    failed = true;
  }
}
console.log(failed ? 'tsclient: FAILED' : 'tsclient: all checks passed');
process.exit(failed ? 1 : 0);
