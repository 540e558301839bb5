// node:test of @glovebox/client against the real broker and agent, run by tests/mcp/tsclient_test.go with the
// environment it starts: over the unix socket and over mutual TLS it creates a session, takes a screenshot, types
// into a GTK entry and reads the app's own output file; a bad request comes back with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrokerClient, reasonOf } from './client.js';
import { MouseButton, ImageFormat } from './gen/glovebox/agent/v1/common_pb.js';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run through go test ./tests/mcp -run TestTypeScriptClient)`);
  return v;
};
const [entryX, entryY] = env('ENTRY').split(',').map(Number);
const [screenW, screenH] = env('SCREEN').split('x').map(Number);

/** waitLine polls the app's output file until it holds a line ending with tail. */
async function waitLine(tail, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const lines = readFileSync(env('APP_OUTPUT'), 'utf8').split('\n');
    if (lines.some((l) => l.startsWith('entry: ') && l.endsWith(tail))) return;
    if (Date.now() > deadline) assert.fail(`the app did not print an entry ending ${JSON.stringify(tail)} within ${ms} ms; it printed ${JSON.stringify(lines.slice(-5))}`);
    await sleep(20);
  }
}

async function session(client, text) {
  const { session } = await client.sessions.createSession({ guest: env('GLOVEBOX_GUEST'), label: 'ts-client' });
  const sessionId = session.id;
  try {
    const shot = await client.computer.captureScreenshot({ sessionId, request: { options: { format: ImageFormat.PNG } } });
    const img = shot.response.image;
    assert.deepEqual([img.width, img.height], [screenW, screenH]);
    assert.equal(Buffer.from(img.data.subarray(1, 4)).toString(), 'PNG');
    assert.ok(shot.auditSeq > 0n);

    const act = (action) => client.computer.act({ sessionId, request: { action } });
    await act({ case: 'click', value: { at: { x: entryX, y: entryY }, button: MouseButton.LEFT, count: 1 } });
    await act({ case: 'key', value: { combo: 'ctrl+a' } });
    const typed = await act({ case: 'type', value: { text } });
    assert.equal(typed.response.charactersTyped, [...text].length);
    // The entry shows the typed text at its end. What the first session typed may still be before it: in one
    // CI-like run ctrl+a right after the focusing click did not select it (not understood yet; see the note).
    await waitLine(text);

    await assert.rejects(act({ case: 'click', value: { at: { x: 1, y: 1 }, count: 7 } }), (err) => {
      assert.equal(reasonOf(err), 'INVALID_ARGUMENT');
      assert.match(err.message, /request\.action\.click\.count/);
      return true;
    });
  } finally {
    await client.sessions.deleteSession({ sessionId });
  }
}

test('unix socket', async () => {
  await session(createBrokerClient(env('GLOVEBOX_BROKER')), 'Grüße über unix 你好 🚀');
});

test('tcp with mutual TLS', async () => {
  const client = createBrokerClient(env('GLOVEBOX_BROKER_TCP'), { cert: env('TLS_CERT'), key: env('TLS_KEY'), ca: env('TLS_CA'), serverName: 'localhost' });
  await session(client, 'über mTLS 東京');
});
