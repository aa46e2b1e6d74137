// A scripted language client for the command tests: each server command
// answers a value, a function of its arguments, or a JSON-RPC error; what
// was sent is recorded.

import * as vscode from 'vscode';
import { ContextClient } from '../src/commands';

/** A JSON-RPC error as vscode-jsonrpc rejects with. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export type Answer = unknown | RpcError | ((args: unknown) => unknown);

export class FakeClient implements ContextClient {
  sent: { command: string; args: unknown; token?: vscode.CancellationToken }[] = [];
  constructor(public answers: Record<string, Answer>) {}
  async execute<T>(command: string, args: object | undefined, token?: vscode.CancellationToken): Promise<T> {
    this.sent.push({ command, args, token });
    const a = this.answers[command];
    if (a === undefined) {
      throw new RpcError(-32601, `no answer scripted for ${command}`);
    }
    if (a instanceof RpcError) {
      throw a;
    }
    return (typeof a === 'function' ? await (a as (args: unknown) => unknown)(args) : a) as T;
  }
  uriOf(uri: vscode.Uri): string {
    return uri.toString();
  }
}
