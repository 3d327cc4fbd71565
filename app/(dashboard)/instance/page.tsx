import { notFound } from "next/navigation";
import { InstanceHealth } from "@/components/dashboard/instance-health";
import { signedInOperator } from "@/server/identity/next-auth";

export default async function InstancePage() {
  const operator = await signedInOperator();
  if (!operator?.isInstanceAdmin) notFound();
  return <InstanceHealth />;
}
