// The shell every lazy webview page shares: a strict CSP (nothing but the bundle's own styles
// and images, and the one script carrying this load's nonce), then static markup. What a page
// shows arrives later as data and is written with textContent.
import * as crypto from "node:crypto";

export interface PageAssets {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function nonce(): string {
  return crypto.randomBytes(18).toString("base64");
}

export function webviewPage(assets: PageAssets, title: string, body: string): string {
  const csp = [
    "default-src 'none'",
    `style-src ${assets.cspSource}`,
    `script-src 'nonce-${assets.nonce}'`,
    `img-src ${assets.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${assets.styleUri}">
<title>${title}</title>
</head>
<body>
${body}
<script nonce="${assets.nonce}" src="${assets.scriptUri}"></script>
</body>
</html>`;
}
