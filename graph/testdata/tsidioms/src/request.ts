export class Request {
  header(name: string): string {
    return name;
  }
}

export class Context {
  #req = new Request();

  get req(): Request {
    return this.#req;
  }
}
