#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msm/msm.h"
#include "util/timer.h"
static uint64_t sm(uint64_t *s){uint64_t z=(*s+=0x9e3779b97f4a7c15ULL);z=(z^(z>>30))*0xbf58476d1ce4e5b9ULL;z=(z^(z>>27))*0x94d049bb133111ebULL;return z^(z>>31);}
#define MK(G,FR,FQ) static double run_##G(size_t n,int th,int reps){ uint64_t seed=1; G##_affine gen,*b=malloc(n*sizeof*b); G##_jac g,p,q,r,*j=malloc(n*sizeof*j); FQ*sc=malloc(n*sizeof*sc); FR*k=malloc(n*sizeof*k); uint64_t kp[4]={12345,6,7,8},kq[4]={999,1,2,3}; G##_generator(&gen);G##_jac_from_affine(&g,&gen);G##_jac_mul_var(&p,&g,kp,256);G##_jac_mul_var(&q,&g,kq,256); for(size_t i=0;i<n;i++){j[i]=p;G##_jac_dbl(&p,&p);G##_jac_add(&p,&p,&q);for(int l=0;l<4;l++)k[i].l[l]=sm(&seed);k[i].l[3]&=(1ULL<<60)-1;} G##_jac_batch_to_affine(b,j,n,sc); double best=1e9; for(int i=0;i<reps;i++){double t0=cuzk_now_s();G##_msm(&r,b,k,n,th);double dt=cuzk_now_s()-t0;if(dt<best)best=dt;} free(b);free(j);free(sc);free(k);return best*1e3;}
MK(bn254_g1,bn254_fr,bn254_fp)
MK(bn254_g2,bn254_fr,bn254_fp2)
MK(bls12_381_g1,bls12_381_fr,bls12_381_fp)
MK(bls12_381_g2,bls12_381_fr,bls12_381_fp2)
int main(int argc,char**argv){ int which=atoi(argv[1]); size_t n=(size_t)1<<atoi(argv[2]); int th=argc>3?atoi(argv[3]):1; int reps=argc>4?atoi(argv[4]):3; double ms=0;
 switch(which){case 0:ms=run_bn254_g1(n,th,reps);break;case 1:ms=run_bn254_g2(n,th,reps);break;case 2:ms=run_bls12_381_g1(n,th,reps);break;default:ms=run_bls12_381_g2(n,th,reps);}
 printf("group %d n 2^%s th %d: %.1f ms\n",which,argv[2],th,ms);}
