export function slug(s: string): string {
  return s.toLowerCase();
}

export function save(key: string) {
  return key;
}
