export interface Store {
  save(key: string): void;
}

export class Repo implements Store {
  save(key: string): void {}
  load(key: string): string {
    return key;
  }
}

export default function openRepo(path: string): Repo {
  return new Repo();
}
