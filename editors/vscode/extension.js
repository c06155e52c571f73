// Starts `agc lsp` for YAML and JSON files and opens `agc-explain:CODE` links (a diagnostic's
// code) as the text `agc explain CODE` prints.
const vscode = require("vscode");
const { execFile } = require("child_process");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("agc").get("path") || "agc";
  client = new LanguageClient(
    "agc",
    "agc",
    { command, args: ["lsp"], transport: TransportKind.stdio },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "json" },
      ],
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{yaml,yml,json,toml,md}"),
      },
    }
  );
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider("agc-explain", {
      provideTextDocumentContent(uri) {
        return new Promise((resolve) =>
          execFile(command, ["explain", uri.path], (err, stdout, stderr) =>
            resolve(err ? stderr || String(err) : stdout)
          )
        );
      },
    })
  );
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
