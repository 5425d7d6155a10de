import { listProjects } from '../../projects/domain/listProjects.js';
import { defineProjectCommand } from './projectCommand.js';

export const listProjectsCommand = defineProjectCommand({
  name: 'list',
  usage: `  list
      prints every project (no secrets)`,
  options: {},
  parse: () => undefined,
  run: (deps) => listProjects(deps),
});
