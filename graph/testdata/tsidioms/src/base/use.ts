import { App } from "./app";

export const chained = new App().basePath("/x");

export function local() {
  const app = new App();
  app.basePath("/y");
}
