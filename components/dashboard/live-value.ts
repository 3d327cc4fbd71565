import type { ConfigType } from "@/server/services/remote-config/schemas";

/** A value typed in a form field as the key's type: "4.99" → 4.99, "true" → true, JSON parsed; a message when it is not one. */
export function parseValue(type: ConfigType, text: string): { value: unknown } | { problem: string } {
  switch (type) {
    case "string":
      return { value: text };
    case "number": {
      const n = Number(text);
      return text.trim() !== "" && Number.isFinite(n) ? { value: n } : { problem: "Enter a number such as 4.99." };
    }
    case "boolean":
      return text === "true" || text === "false" ? { value: text === "true" } : { problem: "Choose true or false." };
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { problem: 'Enter JSON such as {"discount": 20}.' };
      }
  }
}

/** A stored value as the form field's text. */
export const textOfValue = (type: ConfigType, v: unknown): string => (type === "string" ? String(v ?? "") : JSON.stringify(v ?? ""));
