// Preload (node --import) that records a V8 CPU profile of the whole process and writes it to
// $CPU_PROFILE_DIR/<pid>.cpuprofile at exit. For service processes started through NODE_OPTIONS,
// which refuses --cpu-prof itself. The in-thread inspector session answers synchronously, so the
// profile can be collected in the exit handler.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const session = new Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: Number(process.env.CPU_PROFILE_INTERVAL_US ?? 1000) });
session.post("Profiler.start");
process.on("exit", () => {
  session.post("Profiler.stop", (err, res) => {
    if (!err) writeFileSync(join(process.env.CPU_PROFILE_DIR ?? ".", `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
  });
});
