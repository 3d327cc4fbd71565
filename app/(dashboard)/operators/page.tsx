import { notFound } from "next/navigation";
import { Operators } from "@/components/dashboard/operators";
import { signedInOperator } from "@/server/auth/next-auth";
import { env } from "@/server/env";

export default async function OperatorsPage() {
  const operator = await signedInOperator();
  if (!operator?.isInstanceAdmin) notFound();
  return <Operators selfId={operator.id} creators={env().PROJECT_CREATORS} />;
}
