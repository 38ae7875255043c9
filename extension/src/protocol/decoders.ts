// The runtime decoders' building blocks. protocol/decode.ts (generated from the schema by
// protocol/generate.py) composes them into one decoder per shape the sidecar sends; the
// webview message unions (transcript/messages.ts, ask/messages.ts) use them by hand.

export class DecodeError extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${path || "value"}: expected ${expected}`);
    this.name = "DecodeError";
  }
}

export type Decoder<T> = (value: unknown, path: string) => T;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const str: Decoder<string> = (v, p) => {
  if (typeof v !== "string") throw new DecodeError(p, "a string");
  return v;
};

export const num: Decoder<number> = (v, p) => {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new DecodeError(p, "a number");
  return v;
};

export const int: Decoder<number> = (v, p) => {
  if (!Number.isInteger(v)) throw new DecodeError(p, "an integer");
  return v as number;
};

export const bool: Decoder<boolean> = (v, p) => {
  if (typeof v !== "boolean") throw new DecodeError(p, "a boolean");
  return v;
};

/** Any value (a schema that only annotates): passed on, trusted by no code. */
export const unknown: Decoder<unknown> = (v) => v;

/** No value at all: the values of an object that must be empty. */
export const never: Decoder<never> = (_v, p) => {
  throw new DecodeError(p, "nothing");
};

type Primitive = string | number | boolean | null;

export function literal<const T extends Primitive>(...values: T[]): Decoder<T> {
  return (v, p) => {
    if (!(values as unknown[]).includes(v)) {
      throw new DecodeError(p, values.map((x) => JSON.stringify(x)).join(" | "));
    }
    return v as T;
  };
}

export function nullable<T>(d: Decoder<T>): Decoder<T | null> {
  return (v, p) => (v === null ? null : d(v, p));
}

/** An optional field: absent is undefined. */
export function optional<T>(d: Decoder<T>): Decoder<T | undefined> {
  return (v, p) => (v === undefined ? undefined : d(v, p));
}

/** The first of the decoders that accepts the value. */
export function union<T extends unknown[]>(...ds: { [K in keyof T]: Decoder<T[K]> }): Decoder<T[number]> {
  return (v, p) => {
    const expected: string[] = [];
    for (const d of ds) {
      try {
        return d(v, p);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        expected.push(e.expected);
      }
    }
    throw new DecodeError(p, expected.join(" or "));
  };
}

export function arr<T>(d: Decoder<T>): Decoder<T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) throw new DecodeError(p, "an array");
    return v.map((x, i) => d(x, `${p}[${i}]`));
  };
}

/** An array of exactly these items, each checked by its own decoder. */
export function tuple<T extends unknown[]>(...items: { [K in keyof T]: Decoder<T[K]> }): Decoder<T> {
  return (v, p) => {
    if (!Array.isArray(v) || v.length !== items.length) {
      throw new DecodeError(p, items.length === 2 ? "a pair" : `an array of ${items.length}`);
    }
    return items.map((d, i) => d(v[i], `${p}[${i}]`)) as T;
  };
}

export function record<T>(d: Decoder<T>): Decoder<Record<string, T>> {
  return (v, p) => {
    if (!isRecord(v)) throw new DecodeError(p, "an object");
    const out: Record<string, T> = {};
    for (const [k, x] of Object.entries(v)) out[k] = d(x, `${p}.${k}`);
    return out;
  };
}

export type Shape<T> = { [K in keyof T]-?: Decoder<T[K]> };

/** An object with exactly the fields of T checked; unknown extra fields are kept (a newer
 * sidecar may add some) but not trusted by any code. */
export function obj<T>(shape: Shape<T>): Decoder<T> {
  return (v, p) => {
    if (!isRecord(v)) throw new DecodeError(p, "an object");
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) if (!(key in shape)) out[key] = value;
    for (const key of Object.keys(shape) as (keyof T & string)[]) {
      const value = shape[key](v[key], p ? `${p}.${key}` : key);
      if (value !== undefined) out[key] = value;
    }
    return out as T;
  };
}

/** An integer from 1: a message number, a page's start. */
export const positive: Decoder<number> = (v, p) => {
  const n = int(v, p);
  if (n < 1) throw new DecodeError(p, "a positive integer");
  return n;
};

/** Each message type's fields (all but `type`), each with its decoder. */
export type MessageShapes<U extends { type: string }> = {
  [T in U["type"]]: { [K in Exclude<keyof Extract<U, { type: T }>, "type">]-?: Decoder<Extract<U, { type: T }>[K]> };
};

/** One message of a discriminated union: its type must be one of the shapes', and only the
 * fields of that shape are kept (a page cannot smuggle in more). */
export function message<U extends { type: string }>(shapes: MessageShapes<U>, v: unknown): U {
  if (!isRecord(v) || typeof v.type !== "string") throw new DecodeError("type", "a message type");
  if (!Object.hasOwn(shapes, v.type)) throw new DecodeError("type", `a known message type, not ${JSON.stringify(v.type)}`);
  const shape = shapes[v.type as U["type"]] as Record<string, Decoder<unknown>>;
  const out: Record<string, unknown> = { type: v.type };
  for (const [key, d] of Object.entries(shape)) {
    const value = d(v[key], key);
    // an optional field left out stays out
    if (value !== undefined) out[key] = value;
  }
  return out as U;
}

/** A parse that says what was wrong as an Error instead of throwing it. */
export function orError<T>(parse: () => T): T | Error {
  try {
    return parse();
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}
