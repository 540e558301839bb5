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

/** waitEntry polls the app's output file until the entry's last text ends with text, then checks that it is
 * exactly text. */
async function waitEntry(text, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const entries = readFileSync(env('APP_OUTPUT'), 'utf8').split('\n').filter((l) => l.startsWith('entry: '));
    const last = entries.at(-1);
    if (last !== undefined && last.endsWith(text)) {
      assert.equal(last, `entry: ${text}`, 'ctrl+a after the focusing click selects the old text, which the typed text replaces');
      return;
    }
    if (Date.now() > deadline) assert.fail(`the app did not print an entry ending ${JSON.stringify(text)} within ${ms} ms; it printed ${JSON.stringify(entries.slice(-5))}`);
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
    // The entry holds exactly the typed text: ctrl+a right after the focusing click selected what the first
    // session typed (the click returns once openbox replayed it, so the keys cannot overtake it).
    await waitEntry(text);

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
