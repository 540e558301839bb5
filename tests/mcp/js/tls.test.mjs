// The official TypeScript MCP SDK over the broker's streamable-HTTP endpoint served with TLS (mcp.tls), trusting
// the test CA through NODE_EXTRA_CA_CERTS. Run by tests/mcp/https_test.go, which checks the app's own output for the
// click.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run through go test ./tests/mcp -run TestStreamableHTTPS)`);
  return v;
};

test('streamable HTTP over TLS', async () => {
  const url = new URL(env('MCP_URL'));
  assert.equal(url.protocol, 'https:');
  const client = new Client({ name: 'glovebox-tls-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${env('MCP_TOKEN')}` } },
  }));
  try {
    const shot = await client.callTool({ name: 'computer', arguments: { action: 'screenshot' } });
    assert.ok(!shot.isError, JSON.stringify(shot.content[0]));
    const img = Buffer.from(shot.content.find((c) => c.type === 'image').data, 'base64');
    assert.equal(img.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([img.readUInt32BE(16), img.readUInt32BE(20)], [1280, 800]);
    const click = await client.callTool({ name: 'computer', arguments: { action: 'left_click', coordinate: env('PAD').split(',').map(Number) } });
    assert.ok(!click.isError, click.content[0].text);
  } finally {
    await client.close();
  }
});
