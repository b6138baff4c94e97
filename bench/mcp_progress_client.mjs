// A client of the MCP TypeScript SDK (1.x, the conformance suite's copy; 2025-11-25, an MCP
// session over Streamable HTTP) that calls one tool with a request timeout and
// resetTimeoutOnProgress, as clients built on that SDK do: each progress notification
// starts the timeout again. Used by bench/mcp_wait.py.
// node mcp_progress_client.mjs SDK_DIR URL TOKEN TOOL ARGUMENTS_JSON TIMEOUT_MS
const [sdk, url, token, tool, args, timeout] = process.argv.slice(2);
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/dist/esm/client/streamableHttp.js`);

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "ts-sdk-progress", version: "1" });
let progress = 0;
try {
  await client.connect(transport);
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, {
    timeout: Number(timeout),
    resetTimeoutOnProgress: true,
    onprogress: () => {
      progress += 1;
    },
  });
  process.stdout.write(JSON.stringify({ result, progress }) + "\n");
  await client.close();
  process.exit(0);
} catch (error) {
  process.stdout.write(JSON.stringify({ error: String(error?.message ?? error), progress }) + "\n");
  process.exit(1);
}
