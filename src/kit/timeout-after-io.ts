// A timeout that a stalled process does not misjudge. Each turn of node's
// event loop runs its due timers before it polls for I/O, so after a stall
// (a long GC, a starved CPU, a long synchronous task) a timer that fell due
// during it fires before the reply that arrived meanwhile is read: an answer
// given in time would be called late. Deciding "timed out" in the check phase
// (setImmediate runs right after the I/O poll) reads that reply first.
//
// It matters where a timeout changes what is counted or answered: a lease
// call to the cluster primary or to Redis that "times out" falls back to
// counting in process, which can let a request through that the shared limit
// refuses; a DNS query that "times out" with its reply in the socket is
// retried or failed for nothing.

/** Calls `onTimeout` after `ms` and after the I/O received by then; returns the cancel. */
export function timeoutAfterIo(ms: number, onTimeout: () => void): () => void {
  let late: NodeJS.Immediate | undefined;
  // not unref'd: a caller waits on it, and it is short
  const timer = setTimeout(() => {
    late = setImmediate(onTimeout);
  }, ms);
  return () => {
    clearTimeout(timer);
    if (late !== undefined) clearImmediate(late);
  };
}
