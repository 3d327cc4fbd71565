import { ProjectList } from "@/components/dashboard/projects";

export default function ProjectsPage() {
  return <ProjectList />;
}
