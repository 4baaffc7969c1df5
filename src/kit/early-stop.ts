// Preloaded before the service in the container image (`node --import
// /app/dist/src/kit/early-stop.js dist/src/main.js`): until src/main.ts installs
// its own SIGTERM/SIGINT handlers (which drain in-flight requests), a stop
// signal ends the process at once with 0, since nothing is in flight yet.
// Why: loading the modules and the data takes 1–2 s, and node as PID 1 of a
// container ignores a signal it has no handler for (the kernel applies no
// default action to PID 1), so `docker stop` during start-up would wait out
// its grace period and then SIGKILL.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    // another handler is installed: the service is up and drains itself
    if (process.listenerCount(signal) === 1) process.exit(0);
  });
}
