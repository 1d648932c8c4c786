// Loads src/extension.js with a stand-in `vscode` module (no VS Code needed) and checks
// that activation starts a LanguageClient running `racesc lsp` over stdio for `races`
// documents, with the configured path, arguments and initialization options.
'use strict';

const Module = require('module');
const path = require('path');

const config = { serverPath: '/opt/venv/bin/racesc', serverArgs: ['--log-file', '/tmp/l.log'], include: ['mods'], debounceMs: 50 };
const started = [];
const commands = {};
const fakeVscode = {
  workspace: {
    getConfiguration: (section) => ({ get: (k) => (section === 'racesl' ? config[k] : undefined) }),
    createFileSystemWatcher: (glob) => ({ glob }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
  commands: { registerCommand: (name, fn) => { commands[name] = fn; return { dispose() {} }; } },
  window: { showErrorMessage: (m) => { throw new Error('unexpected error message: ' + m); } },
};
class FakeClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, running: false });
  }
  async start() { this.running = true; started.push(this); }
  async stop() { this.running = false; }
}
const realLoad = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') return fakeVscode;
  if (request === 'vscode-languageclient/node') return { LanguageClient: FakeClient, TransportKind: { stdio: 0 } };
  return realLoad.call(this, request, parent, isMain);
};

function check(cond, msg) {
  if (!cond) { console.error('FAIL: ' + msg); process.exit(1); }
}

(async () => {
  const ext = require(path.join(__dirname, '..', 'src', 'extension.js'));
  const context = { subscriptions: [] };
  await ext.activate(context);
  check(started.length === 1, 'one client started');
  const c = started[0];
  check(c.id === 'racesl', 'client id');
  check(c.serverOptions.run.command === '/opt/venv/bin/racesc', 'server path from racesl.serverPath');
  check(JSON.stringify(c.serverOptions.run.args) === JSON.stringify(['lsp', '--log-file', '/tmp/l.log']), 'args: lsp + serverArgs');
  check(c.serverOptions.run.transport === 0, 'stdio transport');
  check(c.clientOptions.documentSelector.some((s) => s.language === 'races' && s.scheme === 'file'), 'races documents');
  check(c.clientOptions.initializationOptions.debounceMs === 50, 'debounce passed on');
  check(c.clientOptions.initializationOptions.include[0] === 'mods', 'include passed on');
  check(typeof commands['racesl.restartServer'] === 'function', 'restart command registered');
  await commands['racesl.restartServer']();
  check(started.length === 2 && !c.running && started[1].running, 'restart stops and starts');
  config.serverPath = undefined;
  check(ext.serverOptions(fakeVscode.workspace.getConfiguration('racesl')).run.command === 'racesc', 'default racesc');
  await ext.deactivate();
  console.log(JSON.stringify({ ok: true, started: started.length }));
})().catch((e) => { console.error(e && e.stack ? e.stack : e); process.exit(2); });
