import Link from "next/link";

/** A project URL the operator cannot see: deleted, never theirs, or mistyped. */
export default function ProjectNotFound() {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold">Project not found</h1>
      <p className="mt-2 text-sm text-zinc-600">
        This project does not exist, or you are not a member of it. Check the address, or ask an owner of the project for an invite.
      </p>
      <Link href="/projects" className="mt-4 inline-block text-sm underline">
        Back to your projects
      </Link>
    </div>
  );
}
