export * from "./nats-server.js";
export * from "./ports.js";
export * from "./process.js";
export * from "./services.js";
export * from "./system.js";
export * from "./guardian.js";
export * from "./supervisor.js";
export * from "./process-alive.js";
