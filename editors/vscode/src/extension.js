// racesl for VS Code: starts `racesc lsp` (the racesl language server) for .races files.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions(cfg) {
  const command = cfg.get('serverPath') || 'racesc';
  const args = ['lsp', ...(cfg.get('serverArgs') || [])];
  return {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args: [...args, '--verbose'], transport: TransportKind.stdio },
  };
}

function clientOptions(cfg) {
  return {
    documentSelector: [
      { scheme: 'file', language: 'races' },
      { scheme: 'untitled', language: 'races' },
    ],
    initializationOptions: {
      include: cfg.get('include') || [],
      debounceMs: cfg.get('debounceMs'),
    },
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.races'),
    },
    outputChannelName: 'racesl',
  };
}

async function start() {
  const cfg = vscode.workspace.getConfiguration('racesl');
  client = new LanguageClient('racesl', 'racesl language server', serverOptions(cfg), clientOptions(cfg));
  try {
    await client.start();
  } catch (err) {
    const path = cfg.get('serverPath') || 'racesc';
    vscode.window.showErrorMessage(
      `racesl: could not start "${path} lsp" (${err && err.message ? err.message : err}). ` +
      'Install racesl with its lsp extra (pip install -e ".[lsp]" in the racesl checkout) or set "racesl.serverPath".');
    client = undefined;
  }
}

async function stop() {
  if (client) {
    const c = client;
    client = undefined;
    await c.stop();
  }
}

// The command of the server's code lens ("composes after N · before M"): the environments
// it composes with, in VS Code's references peek. Arguments: [uri, position, locations] as
// LSP JSON. The server does not advertise it (vscode-languageclient would register it too).
function showComposers(uri, position, locations) {
  const range = (r) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
  return vscode.commands.executeCommand(
    'editor.action.showReferences',
    vscode.Uri.parse(uri),
    new vscode.Position(position.line, position.character),
    (locations || []).map((l) => new vscode.Location(vscode.Uri.parse(l.uri), range(l.range))),
  );
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('racesl.showComposers', showComposers),
    vscode.commands.registerCommand('racesl.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('racesl.serverPath') || e.affectsConfiguration('racesl.serverArgs') ||
          e.affectsConfiguration('racesl.include') || e.affectsConfiguration('racesl.debounceMs')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate, serverOptions, clientOptions, showComposers };
