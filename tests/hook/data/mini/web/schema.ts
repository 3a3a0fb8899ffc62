// A TypeScript module with $-prefixed names, as zod writes them.

export class $Schema {
  parse(input: unknown): unknown {
    return input;
  }
}

export function $constructor(name: string): string {
  return name;
}

export function safeParse(input: unknown): boolean {
  return input !== undefined;
}
