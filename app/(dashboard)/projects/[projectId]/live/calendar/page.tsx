import { Calendar } from "@/components/dashboard/calendar";

export default async function CalendarPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <Calendar projectId={projectId} />;
}
