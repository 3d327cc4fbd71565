/** Joins class names, skipping falsy parts (no tailwind-merge: callers append, they do not override). */
export const cx = (...parts: Array<string | false | null | undefined>): string => parts.filter(Boolean).join(" ");
