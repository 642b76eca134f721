// Forwards HTTP to TARGET_URL's origin, adding headers, for clients that cannot
// send them: the conformance suite has no option for an Authorization header,
// and the Sieve proxy requires one.
//
//   node add-header-proxy.mjs TARGET_URL 'Name: value'...
//
// Listens on 127.0.0.1 (a free port), prints the target URL rewritten to point
// at itself as its first line of stdout, and runs until killed. Every request
// header goes through untouched, Host and Origin included, so the target's
// Host/Origin checks see what the client sent; responses (SSE too) are piped
// back as they arrive.
import http from "node:http";

const [target, ...headerArgs] = process.argv.slice(2);
if (!target) {
  console.error("usage: node add-header-proxy.mjs TARGET_URL 'Name: value'...");
  process.exit(2);
}
const upstream = new URL(target);
const extra = {};
for (const arg of headerArgs) {
  const at = arg.indexOf(":");
  if (at <= 0) {
    console.error(`add-header-proxy: a header is 'Name: value', not ${JSON.stringify(arg)}`);
    process.exit(2);
  }
  extra[arg.slice(0, at).trim().toLowerCase()] = arg.slice(at + 1).trim();
}

const server = http.createServer((req, res) => {
  const forward = http.request(
    {
      host: upstream.hostname,
      port: upstream.port || 80,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, ...extra },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    },
  );
  forward.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(`add-header-proxy: ${e.message}\n`);
  });
  req.pipe(forward);
});

server.listen(0, "127.0.0.1", () => {
  const self = new URL(target);
  self.hostname = "127.0.0.1";
  self.port = String(server.address().port);
  console.log(self.toString());
});
