// Example: a session on a guest, a screenshot to a file, a click and some typing, through the broker.
//   node example.mjs unix:///run/glovebox/broker.sock GUEST [X Y TEXT]
// For a tcp:// broker set GLOVEBOX_CERT, GLOVEBOX_KEY and GLOVEBOX_CA (mutual TLS), as for the glovebox CLI.
import { writeFileSync } from 'node:fs';
import { createBrokerClient, reasonOf } from './client.js';
import { ImageFormat, MouseButton } from './gen/glovebox/agent/v1/common_pb.js';

const [uri, guest, x, y, text] = process.argv.slice(2);
if (!uri || !guest) {
  console.error('usage: node example.mjs BROKER_URI GUEST [X Y TEXT]');
  process.exit(2);
}
const broker = createBrokerClient(uri, { cert: process.env.GLOVEBOX_CERT, key: process.env.GLOVEBOX_KEY, ca: process.env.GLOVEBOX_CA });
const { session } = await broker.sessions.createSession({ guest, label: 'example.mjs' });
try {
  const shot = await broker.computer.captureScreenshot({ sessionId: session.id, request: { options: { format: ImageFormat.PNG, maxEdge: 1280 } } });
  writeFileSync('shot.png', shot.response.image.data);
  console.log(`shot.png ${shot.response.image.width}x${shot.response.image.height}, audit seq ${shot.auditSeq}`);
  if (x !== undefined) {
    const act = (action) => broker.computer.act({ sessionId: session.id, request: { action } });
    const click = await act({ case: 'click', value: { at: { x: Number(x), y: Number(y) }, button: MouseButton.LEFT, count: 1 } });
    console.log(`click: effect ${click.response.effect}, window ${click.response.target?.windowId}`);
    if (text) {
      const typed = await act({ case: 'type', value: { text } });
      console.log(`typed ${typed.response.charactersTyped} characters`);
    }
  }
} catch (err) {
  console.error(`${reasonOf(err) ?? 'ERROR'}: ${err.message}`);
  process.exitCode = 1;
} finally {
  await broker.sessions.deleteSession({ sessionId: session.id });
}
