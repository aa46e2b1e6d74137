// Conversions between the server's JSON shapes and vscode types, and the
// editor snapshot commands build their arguments from.

import * as vscode from 'vscode';
import { EditorState } from './args';
import { Location, Position, Range } from './protocol';
import { FolderRef } from './render';

/** vscode.Position of an LSP position. */
export function toPosition(p: Position): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

/** vscode.Range of an LSP range. */
export function toRange(r: Range): vscode.Range {
  return new vscode.Range(toPosition(r.start), toPosition(r.end));
}

/** vscode.Location of an LSP location. */
export function toLocation(l: Location): vscode.Location {
  return new vscode.Location(vscode.Uri.parse(l.uri, true), toRange(l.range));
}

/** LSP position of a vscode.Position (both count UTF-16 code units). */
export function fromPosition(p: vscode.Position): Position {
  return { line: p.line, character: p.character };
}

/** The editor snapshot of a file editor; undefined for other documents (untitled, output, …). */
export function editorState(editor: vscode.TextEditor | undefined, uriOf: (uri: vscode.Uri) => string): EditorState | undefined {
  if (editor === undefined || editor.document.uri.scheme !== 'file') {
    return undefined;
  }
  return {
    uri: uriOf(editor.document.uri),
    anchor: fromPosition(editor.selection.anchor),
    active: fromPosition(editor.selection.active),
  };
}

/** The open workspace folders as the renderer wants them. */
export function workspaceFolders(): FolderRef[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
}
