// A scripted agent loop through the official TypeScript MCP SDK, over stdio (`glovebox mcp`) and over the
// broker's streamable-HTTP endpoint with a bearer token. Run by tests/mcp/ts_test.go, which starts the real
// desktop, GTK app, agent and broker, passes what it knows in the environment, and afterwards checks the app's
// own output (clicks at the mapped pixels, the typed text) and that the canary is in no log or audit file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
// The takeover is done with Glovebox's own TypeScript gRPC client (proto/ts), as a supervisor's tool would.
import { createBrokerClient } from '../../../proto/ts/client.js';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run through go test ./tests/mcp -run TestTypeScriptSDK)`);
  return v;
};
const point = (name) => env(name).split(',').map(Number);

/** pngSize reads width and height from a PNG's IHDR. */
function pngSize(b64) {
  const b = Buffer.from(b64, 'base64');
  assert.equal(b.subarray(1, 4).toString(), 'PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

async function agentLoop(client, pad, extra) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ['computer', 'openai_computer', 'get_app_state', 'click', 'browser_fill', 'clipboard_read']) {
    assert.ok(names.includes(want), `tools ${names} have no ${want}`);
  }
  const computer = tools.find((t) => t.name === 'computer');
  assert.deepEqual(computer.inputSchema.properties.coordinate.prefixItems.map((p) => p.maximum), [1279, 799]);

  const shot = await client.callTool({ name: 'computer', arguments: { action: 'screenshot' } });
  assert.ok(!shot.isError, JSON.stringify(shot.content[0]));
  const img = shot.content.find((c) => c.type === 'image');
  assert.equal(img.mimeType, 'image/png');
  assert.deepEqual(pngSize(img.data), [1280, 800]);

  const click = await client.callTool({ name: 'computer', arguments: { action: 'left_click', coordinate: pad } });
  assert.ok(!click.isError, click.content[0].text);
  const fields = JSON.parse(click.content[0].text);
  // Delivered: DONE when the pad repainted, NO_VISIBLE_CHANGE when it did not (the app's own output is what
  // proves the click; the Go test reads it).
  assert.ok(['DONE', 'NO_VISIBLE_CHANGE'].includes(fields.effect), fields.effect);
  assert.ok(fields.audit_seq > 0);

  for (const [args, reason, want] of [
    [{ action: 'mouse_move' }, 'INVALID_ARGUMENT', 'coordinate: required for mouse_move'],
    [{ action: 'left_click', coordinate: [1280, 5] }, 'INVALID_ARGUMENT', 'coordinate[0]: must be 0..1279'],
    [{ action: 'teleport' }, 'INVALID_ARGUMENT', 'action: must be one of'],
  ]) {
    const r = await client.callTool({ name: 'computer', arguments: args });
    assert.ok(r.isError, `${JSON.stringify(args)} is not a tool error`);
    assert.ok(r.content[0].text.startsWith(reason + ': ') && r.content[0].text.includes(want), r.content[0].text);
    assert.equal(r.structuredContent.error.reason, reason);
  }
  await extra(client);
}

test('stdio: glovebox mcp', async () => {
  const transport = new StdioClientTransport({
    command: env('GLOVEBOX_BIN'),
    args: ['mcp', '-broker', env('GLOVEBOX_BROKER'), '-guest', env('GLOVEBOX_GUEST'), '-model', '1280x800'],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'glovebox-ts-test', version: '0' });
  await client.connect(transport);
  try {
    await agentLoop(client, point('PAD_STDIO'), async (c) => {
      const entry = point('ENTRY');
      assert.ok(!(await c.callTool({ name: 'computer', arguments: { action: 'left_click', coordinate: entry } })).isError);
      const t = await c.callTool({ name: 'computer', arguments: { action: 'type', text: 'Grüße 你好 🚀' } });
      assert.ok(!t.isError, t.content[0].text);
    });
  } finally {
    await client.close();
  }
});

test('streamable HTTP: the broker endpoint with a bearer token', async () => {
  const url = new URL(env('MCP_URL'));
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${env('MCP_TOKEN')}` } },
  });
  const client = new Client({ name: 'glovebox-ts-test', version: '0' });
  await client.connect(transport);
  try {
    await agentLoop(client, point('PAD_HTTP'), async (c) => {
      const k = await c.callTool({ name: 'computer', arguments: { action: 'key', text: 'ctrl+a' } });
      assert.ok(!k.isError, k.content[0].text);
      const batch = await c.callTool({
        name: 'openai_computer',
        arguments: { actions: [{ type: 'keypress', keys: ['ArrowLeft'] }, { type: 'type', text: env('CANARY') }] },
      });
      assert.ok(!batch.isError, batch.content[0].text);
      assert.ok(batch.content.some((b) => b.type === 'image'));

      // get_app_state, then a click by ref (tests/mcp checks the app printed "button clicked").
      const state = await c.callTool({ name: 'get_app_state', arguments: { name: 'mcpapp', max_tokens: 1024 } });
      assert.ok(!state.isError, state.content[0].text);
      const tree = state.content.filter((b) => b.type === 'text' && b._meta?.['glovebox.dev/untrusted']).map((b) => b.text).join('');
      const ref = /\[(e\d+)\] push button "Press me"/.exec(tree);
      assert.ok(ref, `no button in the tree:\n${tree}`);
      assert.ok(JSON.parse(state.content[0].text).text_bytes <= 4096);
      const click = await c.callTool({ name: 'click', arguments: { ref: ref[1] } });
      assert.ok(!click.isError, click.content[0].text);

      // A human takes over: the click is a tool error with CONTROL_HELD.
      const broker = createBrokerClient(env('GLOVEBOX_BROKER'));
      await broker.control.acquireControl({ guest: env('GLOVEBOX_GUEST'), reason: 'ts takeover' });
      try {
        const refused = await c.callTool({ name: 'click', arguments: { ref: ref[1] } });
        assert.ok(refused.isError && refused.content[0].text.startsWith('CONTROL_HELD: '), refused.content[0].text);
        assert.equal(refused.structuredContent.error.reason, 'CONTROL_HELD');
      } finally {
        await broker.control.releaseControl({ guest: env('GLOVEBOX_GUEST') });
      }
    });
    await transport.terminateSession();
  } finally {
    await client.close();
  }
});
