import { Account } from "@/components/dashboard/account";

export default function AccountPage() {
  return <Account />;
}
