/** Where a command writes; injected so tests capture it. */
export interface Output {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

export interface CommandResult {
  readonly exitCode: number;
}
