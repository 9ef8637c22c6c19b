// Original file: proto/engine/v1/engine.proto

export interface CreateAccountRequest {
  user_id?: string;
  plan_id?: string;
  default_venue?: string;
  label?: string;
  _default_venue?: "default_venue";
  _label?: "label";
}

export interface CreateAccountRequest__Output {
  user_id: string;
  plan_id: string;
  default_venue?: string;
  label?: string;
  _default_venue?: "default_venue";
  _label?: "label";
}
