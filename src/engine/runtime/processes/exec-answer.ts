/**
 * The JSON body of an `exec` answer, written piece by piece: the fixed fields first, then each
 * stream's base64 as it is encoded from the kept bytes (`CappedOutput.base64Pieces`). The engine
 * never builds the whole encoded output as one string, nor the whole JSON document: what it holds
 * for an answer is the capped bytes plus one piece.
 */
import type { CappedOutput } from './capped-output.js';

export interface ExecFacts {
  exit_code: number;
  duration_ms: number;
  timed_out?: boolean;
}

export function* execAnswerPieces(facts: ExecFacts, stdout: CappedOutput, stderr: CappedOutput): Generator<string> {
  const head = {
    exit_code: facts.exit_code,
    duration_ms: facts.duration_ms,
    ...(facts.timed_out ? { timed_out: true } : {}),
    // `output_truncated` (either stream; absent when false) is the field older answers had.
    ...(stdout.truncated || stderr.truncated ? { output_truncated: true } : {}),
    stdout_truncated: stdout.truncated,
    stderr_truncated: stderr.truncated,
  };
  // `{"exit_code":…,…,` then the two strings (base64 needs no JSON escaping).
  yield `${JSON.stringify(head).slice(0, -1)},"stdout_b64":"`;
  yield* stdout.base64Pieces();
  yield '","stderr_b64":"';
  yield* stderr.base64Pieces();
  yield '"}';
}
