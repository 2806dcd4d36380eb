// A value whose JSON text is already written: a task-list item rendered once and kept in the index beside its
// file's stamp (store/taskindex.ts). clikit's writeJSON writes the text as it is; anything else that turns the
// document into JSON (JSON.stringify, an MCP result) gets the same value through toJSON.

export class RawJSON {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}
