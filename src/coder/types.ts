// The Coder REST answers the gate reads: https://coder.com/docs/reference/api/templates

export interface CoderBuildInfo {
  version: string
  dashboard_url?: string
  upgrade_message?: string
  [field: string]: unknown
}

export interface CoderOrganization {
  id: string
  name: string
  display_name?: string
  description?: string
  icon?: string
  created_at?: string
  updated_at?: string
  is_default?: boolean
}

export interface CoderTemplate {
  id: string
  name: string
  organization_id: string
  organization_name?: string
  active_version_id: string
  display_name?: string
  deprecated?: boolean
  [field: string]: unknown
}

/** ProvisionerJob `status`; active = pending/running/canceling. */
export type CoderJobStatus =
  'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed' | 'unknown'

export interface CoderProvisionerJob {
  id: string
  status: CoderJobStatus | string
  error?: string
  error_code?: string
  created_at?: string
  started_at?: string
  completed_at?: string
  canceled_at?: string
  file_id?: string
}

export interface CoderTemplateVersion {
  id: string
  template_id: string | null
  organization_id: string
  name: string
  message: string
  job: CoderProvisionerJob
  archived: boolean
  /** Who pushed the version. */
  created_by?: { id?: string; username?: string; avatar_url?: string }
  created_at?: string
  updated_at?: string
  [field: string]: unknown
}

export interface CoderUser {
  id: string
  username: string
  [field: string]: unknown
}
