import { notFound } from "next/navigation";
import { Operators } from "@/components/dashboard/operators";
import { env } from "@/server/env";
import { signedInOperator } from "@/server/identity/next-auth";

export default async function OperatorsPage() {
  const operator = await signedInOperator();
  if (!operator?.isInstanceAdmin) notFound();
  return <Operators selfId={operator.id} creators={env().PROJECT_CREATORS} />;
}
