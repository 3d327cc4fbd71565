/** The app's error message of a failed tRPC call (the server sends the error table's message). */
export function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : "Something went wrong.";
}
