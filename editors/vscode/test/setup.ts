// Mocha setup: `require('vscode')` resolves to the stub in test/stub, so
// modules that import 'vscode' load under plain Node.

import Module = require('module');

const stub = require.resolve('./stub/vscode');
const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = mod._resolveFilename;
mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === 'vscode') {
    return stub;
  }
  return original.call(this, request, ...rest);
};
