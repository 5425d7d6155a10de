/** The project facts the challenge rules need; the connect service owns projects. */
export interface ProjectSettings {
  projectId: string;
  /** The application's name, used in messages. */
  appName: string;
  /** Allowed origins: email links must point at one of them. */
  origins: string[];
  /** Who delivers B1 challenges: the application ("app") or this service ("service"). */
  challengeDelivery: 'app' | 'service';
  /** Wrong values a challenge accepts before it expires. */
  maxChallengeAttempts: number;
  /** Where email links point when a challenge names no linkUrl ("" when not configured). */
  emailLinkUrl: string;
}

export interface ProjectSettingsSource {
  /** The project's settings; not_found `project_not_found` if it does not exist. */
  get(projectId: string): Promise<ProjectSettings>;
}
