import { AccessTokens } from "@/components/dashboard/tokens";

export default function TokensPage() {
  return <AccessTokens />;
}
