// Preloaded into the Prism process: when the suite's process dies, even by SIGKILL, the IPC channel
// closes and Prism exits with it, so no mock is ever left listening behind a run.
process.on('disconnect', () => process.exit(0));
