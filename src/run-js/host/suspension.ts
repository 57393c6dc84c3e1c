/**
 * How a host function says "a person must answer this first": it throws a {@link RunJsSuspension}
 * (a tool that asks, a file operation the policy routes to an approval). In a run started with
 * `suspendable: true` the program parks there and the run ends with `suspended`; resuming it with
 * the answer replays the program against its journal (journal.ts). In any other run the call fails
 * with `SuspendError`, which the program can catch.
 */
export class RunJsSuspension extends Error {
  override readonly name = 'RunJsSuspension'
  constructor(
    /** What to put to the person: plain JSON data (a question, an approval request), kept in the journal. */
    readonly request: unknown,
    message = 'this call waits for a person',
  ) {
    super(message)
  }
}

/** True for a {@link RunJsSuspension} thrown by a host function. */
export function isRunJsSuspension(error: unknown): error is RunJsSuspension {
  return error instanceof RunJsSuspension
}
