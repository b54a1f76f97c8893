export * from "./lite.js";
export * from "./config.js";
