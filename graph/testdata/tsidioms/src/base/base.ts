class App {
  basePath(path: string): App {
    return this;
  }
}

export { App as AppBase };
