export * from "./clients.js";
export * from "./environment.js";
export * from "./events.js";
export * from "./story.js";
export * from "./webhook.js";
export * from "./leaders.js";
export * from "./alerts.js";
